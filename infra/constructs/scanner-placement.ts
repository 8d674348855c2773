import type * as codebuild from 'aws-cdk-lib/aws-codebuild';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { VpcPlacement } from '../config.js';
import { acknowledgeWildcardResource } from '../nag.js';

export interface ScannerPlacementProps {
  vpc: VpcPlacement;
  /** The functions that reach the estate (the scanners); the others talk to AWS APIs only. */
  functions: Array<{ function: lambda.Function; role: iam.IRole }>;
  codebuild?: codebuild.Project;
}

/**
 * Places the scanners in the subnets and security groups of the config, for estates whose state
 * buckets, Argo CD or Kubernetes endpoints are private. The subnets need a route to the AWS APIs the
 * scans use (S3, STS, Secrets Manager, and the provider's services): a NAT gateway or VPC endpoints.
 * Ids rather than a looked-up VPC: synth stays offline and needs no credentials.
 */
export class ScannerPlacement extends Construct {
  constructor(scope: Construct, id: string, props: ScannerPlacementProps) {
    super(scope, id);
    const { subnetIds, securityGroupIds, vpcId } = props.vpc;
    for (const { function: fn, role } of props.functions) {
      (fn.node.defaultChild as lambda.CfnFunction).vpcConfig = { subnetIds, securityGroupIds };
      // What AWSLambdaVPCAccessExecutionRole grants, as an inline statement (no managed policy).
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'VpcNetworkInterfaces',
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DescribeNetworkInterfaces',
            'ec2:DeleteNetworkInterface',
            'ec2:AssignPrivateIpAddresses',
            'ec2:UnassignPrivateIpAddresses',
          ],
          resources: ['*'],
        }),
      );
      acknowledgeWildcardResource(
        role,
        '*',
        'Lambda in a VPC: ec2:CreateNetworkInterface and DescribeNetworkInterfaces support no resource-level permissions (AWSLambdaVPCAccessExecutionRole).',
      );
    }
    if (props.codebuild) {
      const project = props.codebuild.node.defaultChild as codebuild.CfnProject;
      project.vpcConfig = { vpcId, subnets: subnetIds, securityGroupIds };
      // CodeBuild's documented VPC permissions for its service role.
      props.codebuild.role?.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'CodeBuildVpc',
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DescribeDhcpOptions',
            'ec2:DescribeNetworkInterfaces',
            'ec2:DeleteNetworkInterface',
            'ec2:DescribeSubnets',
            'ec2:DescribeSecurityGroups',
            'ec2:DescribeVpcs',
          ],
          resources: ['*'],
        }),
      );
      props.codebuild.role?.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'CodeBuildVpcInterfaces',
          actions: ['ec2:CreateNetworkInterfacePermission'],
          resources: ['arn:*:ec2:*:*:network-interface/*'],
          conditions: {
            StringEquals: { 'ec2:AuthorizedService': 'codebuild.amazonaws.com' },
            ArnEquals: { 'ec2:Subnet': subnetIds.map((subnet) => `arn:*:ec2:*:*:subnet/${subnet}`) },
          },
        }),
      );
      if (props.codebuild.role)
        acknowledgeWildcardResource(
          props.codebuild.role,
          'arn:*:ec2:*:*:network-interface/*',
          'CodeBuild creates the network interfaces of its builds; the condition limits it to the configured subnets.',
        );
    }
  }
}
