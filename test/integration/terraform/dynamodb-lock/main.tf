# A workspace on the legacy DynamoDB locking (deprecated since Terraform 1.11): its lock lives in
# the table, its state digest too. Bucket, key and region come from -backend-config.
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    dynamodb_table = "tf-locks"
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "name" {
  type = string
}

resource "aws_s3_bucket" "this" {
  bucket = var.name
}
